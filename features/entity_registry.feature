@cap:ingestion
Feature: Ingestion of any entity of DataHub's entity registry
  DataHub's entity registry (entity-registry.yml in DataHub's metadata models) names every
  entity type DataHub keeps, each with its key aspect and the aspects it may have.
  Ingestion takes any of them, through a Rest.li proposal, a Rest.li batch and OpenAPI, as
  DataHub's SDK and its datahub-rest sink send them, and each aspect reads back under its
  record's full name. An entity's key aspect is made from its URN: the URN's parts, in
  order, are the key's fields (a container's guid; a data job's flow and job id). A
  proposal for an entity type DataHub does not have, or for an aspect its entity type does
  not have, is refused, and a batch holding one is refused whole.

  Writing an entity needs EDIT_ENTITY on it, but a user is written only by someone allowed
  to manage users (UPDATE_USERS_AND_GROUPS or MANAGE_USERS_AND_GROUPS), and EDIT_ENTITY
  does not let anyone write a policy or an access token's record.

  Background:
    Given Ann holds a personal access token

  @id:registry-01 @must @smoke
  Scenario Outline: Someone granted EDIT_ENTITY writes <what> through <path>, and it reads back with the entity's key
    Given Ann is granted EDIT_ENTITY
    When Ann writes <what> through <path>
    Then the write is acknowledged
    And the aspect written reads back under its record's full name
    And the entity's key aspect holds the parts of its URN

    Examples:
      | what                                         | path               |
      | the properties of a new container            | a Rest.li proposal |
      | the editable properties of a new data job    | a Rest.li batch    |
      | the input of a new execution request         | OpenAPI            |
      | the information of a new ingestion source    | a Rest.li batch    |
      | the information of a new glossary term       | OpenAPI            |

  @id:registry-02 @must @core
  Scenario Outline: A batch holding a proposal for an entity type DataHub does not have is refused through <path>, and none of it is stored
    Given Ann is granted EDIT_ENTITY
    When Ann writes through <path> a new dataset's properties and a proposal for an entity type DataHub does not have
    Then the answer is a refusal of a bad request
    And the dataset was not made

    Examples:
      | path            |
      | a Rest.li batch |
      | OpenAPI         |

  @id:registry-03 @must @core
  Scenario Outline: A proposal of an aspect datasets do not have is refused through <path>, and none of its batch is stored
    Given Ann is granted EDIT_ENTITY
    When Ann writes through <path> a new dataset's properties and an aspect datasets do not have
    Then the answer is a refusal of a bad request
    And the dataset was not made

    Examples:
      | path               |
      | a Rest.li batch    |
      | a Rest.li proposal |

  @id:registry-04 @should @core
  Scenario: A batch holding a proposal whose URN does not fit its entity type's key is refused whole through Rest.li
    Given Ann is granted EDIT_ENTITY
    When Ann writes through a Rest.li batch a new dataset's properties and the properties of a dataset whose URN lacks its origin
    Then the answer is a refusal of a bad request
    And the dataset was not made

  @id:registry-05 @must @core
  Scenario: A write through OpenAPI holding a dataset whose URN does not fit a dataset's key is refused, and none of it is stored
    Given Ann is granted EDIT_ENTITY
    When Ann writes through OpenAPI a new dataset's properties and the properties of a dataset whose URN lacks its origin
    Then the answer is a refusal of a bad request
    And the dataset was not made

  @id:registry-06 @must @core
  Scenario: Someone granted EDIT_ENTITY cannot write a policy through ingestion
    Given Ann is granted EDIT_ENTITY
    When Ann writes a policy giving her every privilege through a Rest.li proposal
    Then the write is refused, and no such policy exists

  @id:registry-07 @should @core
  Scenario: Someone granted EDIT_ENTITY cannot rewrite someone's access token record through ingestion
    Given Ann is granted EDIT_ENTITY
    And Bob holds a personal access token
    When Ann rewrites the record of Bob's token as hers through a Rest.li proposal
    Then the write is refused, and the record of Bob's token is as it was

  @id:registry-08 @must @core
  Scenario: Someone granted EDIT_ENTITY on every entity cannot write a user's information through ingestion
    Given Ann is granted EDIT_ENTITY
    And Bob is a user
    When Ann writes Bob's information through a Rest.li proposal
    Then the answer has status 403

  @id:registry-09 @must @core
  Scenario Outline: Someone granted <privilege> writes a user's information through ingestion
    Given Ann is granted <privilege>
    And Bob is a user
    When Ann writes Bob's information through a Rest.li proposal
    Then the write is acknowledged
    And Bob's information reads back as Ann wrote it

    Examples:
      | privilege               |
      | UPDATE_USERS_AND_GROUPS |
      | MANAGE_USERS_AND_GROUPS |
