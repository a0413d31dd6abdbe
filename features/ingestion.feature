@cap:ingestion
Feature: Ingestion
  Metadata is written by sending a proposal that upserts one aspect of one entity to the
  ingestion endpoint, on the metadata service or through the frontend, with a personal
  access token. The token's user needs EDIT_ENTITY on that entity, from a policy that
  covers it by type, by URN or as all resources; then the write is acknowledged and the
  aspect reads back through both entity paths. Without it the proposal is refused with 403
  and nothing is stored. Current DataHub acknowledges with "success", older releases and
  the reference with the entity's URN: either is accepted.

  Background:
    Given Ann holds a personal access token

  @id:ingest-01 @must @smoke
  Scenario: Someone granted EDIT_ENTITY ingests a dataset's description
    Given Ann is granted EDIT_ENTITY
    When Ann ingests a description for a new dataset
    Then the ingestion is acknowledged
    And the dataset's description reads back through the metadata service's entity path
    And the dataset's description reads back through the frontend's entity path

  @id:ingest-02 @must @core
  Scenario: Ingesting an aspect again replaces it
    Given Ann is granted EDIT_ENTITY
    And Ann has ingested a description for a new dataset
    And the dataset's description reads back through the metadata service's entity path
    When Ann ingests another description for that dataset
    Then the ingestion is acknowledged
    And the dataset's description reads back through the metadata service's entity path

  @id:ingest-03 @must @core
  Scenario: Someone granted EDIT_ENTITY ingests through the frontend
    Given Ann is granted EDIT_ENTITY
    When Ann ingests a description for a new dataset through the frontend
    Then the ingestion is acknowledged
    And the dataset's description reads back through the metadata service's entity path

  @id:ingest-04 @must @core
  Scenario: Someone granted EDIT_ENTITY on one dataset ingests its description
    Given Ann is granted EDIT_ENTITY on a new dataset only
    When Ann ingests a description for that dataset
    Then the ingestion is acknowledged
    And the dataset's description reads back through the metadata service's entity path

  @id:ingest-05 @must @core
  Scenario: Someone granted EDIT_ENTITY on one dataset cannot ingest for another
    Given Ann is granted EDIT_ENTITY on a new dataset only
    When Ann ingests a description for another new dataset
    Then the answer has status 403
    And nothing was stored for the dataset

  @id:ingest-06 @must @core
  Scenario: Someone granted EDIT_ENTITY on datasets ingests a dataset's description
    Given Ann is granted EDIT_ENTITY on datasets
    When Ann ingests a description for a new dataset
    Then the ingestion is acknowledged
    And the dataset's description reads back through the metadata service's entity path

  @id:ingest-07 @must @core
  Scenario: Someone granted EDIT_ENTITY on tags ingests a tag's properties
    Given Ann is granted EDIT_ENTITY on tags
    When Ann ingests the properties of a new tag
    Then the ingestion is acknowledged
    And the tag exists with its name and description

  @id:ingest-08 @must @core
  Scenario: Any aspect of a dataset can be ingested
    Given Ann is granted EDIT_ENTITY
    When Ann ingests the institutional memory of a new dataset
    Then the ingestion is acknowledged
    And the dataset's institutional memory reads back through the metadata service's entity path

  @id:ingest-09 @should @core
  Scenario Outline: A proposal <that is malformed> is refused and stores nothing
    Given Ann is granted EDIT_ENTITY
    When Ann ingests a description for a new dataset in a proposal <that is malformed>
    Then the answer is a refusal of a bad request
    And nothing was stored for the dataset

    Examples:
      | that is malformed                           |
      | whose entity type is not the URN's          |
      | whose aspect value is not JSON              |
      | whose aspect value is not a JSON object     |
      | without an aspect                           |
      | whose aspect content type is not JSON       |

  @id:ingest-10 @must @core
  Scenario: Someone granted EDIT_ENTITY on tags cannot ingest for a dataset
    Given Ann is granted EDIT_ENTITY on tags
    When Ann ingests a description for a new dataset
    Then the answer has status 403
    And nothing was stored for the dataset

  @id:ingest-11 @must @core
  Scenario: Someone not granted EDIT_ENTITY cannot ingest
    When Ann ingests a description for a new dataset
    Then the answer has status 403
    And nothing was stored for the dataset

  @id:ingest-12 @must @core
  Scenario: Someone not granted EDIT_ENTITY cannot ingest through the frontend
    When Ann ingests a description for a new dataset through the frontend
    Then the answer has status 403
    And nothing was stored for the dataset

  @id:ingest-13 @must @core
  Scenario Outline: Someone granted only <privilege> cannot ingest
    Given Ann is granted <privilege>
    When Ann ingests a description for a new dataset
    Then the answer has status 403
    And nothing was stored for the dataset

    Examples:
      | privilege     |
      | DELETE_ENTITY |
      | MANAGE_TAGS   |

  @id:ingest-14 @must @smoke
  Scenario: Ingestion clients can check the server without a token
    When someone without a token reads the server configuration
    Then the configuration says the server takes ingestion from DataHub's own clients

  @id:ingest-15 @must @core
  Scenario: A dataset made by ingestion has its key aspect
    Given Ann is granted EDIT_ENTITY
    When Ann ingests a description for a new dataset
    Then the ingestion is acknowledged
    And the dataset's key aspect names its platform, name and origin

  @id:ingest-16 @must @core
  Scenario: A tag made by ingestion has its key aspect
    Given Ann is granted EDIT_ENTITY on tags
    When Ann ingests the properties of a new tag
    Then the ingestion is acknowledged
    And the tag's key aspect names its id

  @id:ingest-17 @must @core
  Scenario: A user made by ingesting only their info has their key aspect
    When the administrator ingests only the info of a new user
    Then the ingestion is acknowledged
    And the user's key aspect names their username

  @id:ingest-18 @must @core
  Scenario Outline: A proposal <flaw> is refused as not matching the aspect's schema, and nothing is stored
    When the administrator ingests a proposal <flaw>
    Then the answer has status 422
    And the answer explains itself in JSON with its status and a message

    Examples:
      | flaw                                                  |
      | whose user info says active is neither true nor false |
      | whose tag name is not text                            |
      | whose dataset description is not text                 |
      | whose dataset custom properties are not all text      |

  @id:ingest-19 @must @core
  Scenario: A proposal to DELETE an aspect is acknowledged only when the aspect goes
    Given Ann is granted EDIT_ENTITY
    And Ann has ingested a description for a new dataset
    When Ann proposes to DELETE the dataset's description
    Then the description is gone if the proposal was acknowledged, and still there if it was refused
