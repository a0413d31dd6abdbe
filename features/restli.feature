@cap:restli
Feature: Reads and batch writes over Rest.li, as DataHub's SDK sends them
  DataHub's Python SDK (acryl-datahub: the datahub CLI, DataHubGraph and every
  datahub-rest ingestion sink) reads one aspect of an entity at
  /aspects/<urn>?aspect=<name>&version=0, and checks that an entity exists by reading its
  key aspect there; it reads an entity at /entitiesV2/<urn>, with ?aspects=List(<names>)
  when it wants only some aspects; and it writes many aspects in one request with
  POST /aspects?action=ingestProposalBatch. Every request in this feature is shaped as the
  SDK shapes it: the URN percent-encoded, the list in the query string left unencoded, the
  body serialised as the SDK serialises it, and the SDK's headers
  (X-RestLi-Protocol-Version 2.0.0, X-DataHub-Client-Mode SDK, its User-Agent).

  An aspect comes back under its record's full name, such as
  com.linkedin.dataset.DatasetProperties, which is where the SDK looks for it; an aspect
  that is not there is not found (404), which the SDK takes as absent. Reading needs one
  of VIEW_ENTITY_PAGE, GET_ENTITY_PRIVILEGE, EDIT_ENTITY or DELETE_ENTITY on the entity.
  Writing a batch needs EDIT_ENTITY on every entity in it, and a batch that cannot be
  written whole is not written at all. A batch may name the same aspect of an entity more
  than once: each is written over the one before, so the later value is kept.

  Background:
    Given Ann holds a personal access token

  @id:restli-01 @must @smoke
  Scenario Outline: An aspect just written reads back under its record's full name through the <tier> aspect path
    Given the administrator has written a new dataset with a description
    When Ann reads the dataset's properties through the <tier> aspect path
    Then the answer holds the dataset's description under com.linkedin.dataset.DatasetProperties

    Examples:
      | tier               |
      | metadata service's |
      | frontend's         |

  @id:restli-02 @must @core
  Scenario: A dataset that exists has its key aspect, so the SDK finds that it exists
    Given the administrator has written a new dataset with a description
    When Ann reads the dataset's key through the metadata service's aspect path
    Then the answer holds the dataset's platform, name and origin under com.linkedin.metadata.key.DatasetKey

  @id:restli-03 @must @core
  Scenario Outline: Reading <what> through the aspect path is not found
    When Ann reads <what> through the metadata service's aspect path
    Then the answer has status 404

    Examples:
      | what                                    |
      | the key of a dataset no one has written |
      | the ownership of a dataset that has none |

  # Every user may read entities through a policy the service starts with. These
  # scenarios switch such policies off while they run, so they run alone.
  @id:restli-04 @must @core @exclusive
  Scenario Outline: Someone granted only <privilege> on the dataset reads its properties through the aspect path
    Given the administrator has written a new dataset with a description
    And no policy lets every user read entities
    And Ann is granted <privilege> on the dataset only
    When Ann reads the dataset's properties through the metadata service's aspect path
    Then the answer holds the dataset's description under com.linkedin.dataset.DatasetProperties

    Examples:
      | privilege            |
      | VIEW_ENTITY_PAGE     |
      | GET_ENTITY_PRIVILEGE |
      | EDIT_ENTITY          |
      | DELETE_ENTITY        |

  @id:restli-05 @must @core @exclusive
  Scenario Outline: Someone not allowed to read entities is refused through the <tier> aspect path
    Given the administrator has written a new dataset with a description
    And no policy lets every user read entities
    When Ann reads the dataset's properties through the <tier> aspect path
    Then the answer has status 403
    And the answer shows nothing of the dataset

    Examples:
      | tier               |
      | metadata service's |
      | frontend's         |

  @id:restli-06 @must @core @exclusive
  Scenario: Someone granted VIEW_ENTITY_PAGE on another dataset is refused this one's properties
    Given the administrator has written a new dataset with a description
    And no policy lets every user read entities
    And Ann is granted VIEW_ENTITY_PAGE on another dataset only
    When Ann reads the dataset's properties through the metadata service's aspect path
    Then the answer has status 403
    And the answer shows nothing of the dataset

  @id:restli-07 @must @smoke
  Scenario Outline: The <tier> v2 entity path gives every aspect by name, each with its value
    Given the administrator has written a new dataset with a description and institutional memory
    When Ann reads the dataset through the <tier> v2 entity path
    Then the answer names the dataset and holds its properties, institutional memory and key, each with its value

    Examples:
      | tier               |
      | metadata service's |
      | frontend's         |

  @id:restli-08 @must @core
  Scenario: The v2 entity path gives the aspects asked for and the key, and no others
    Given the administrator has written a new dataset with a description and institutional memory
    When Ann reads the dataset's properties and ownership through the metadata service's v2 entity path
    Then the answer holds the dataset's properties and its key, and no aspect but those asked for

  @id:restli-09 @must @core
  Scenario: A dataset no one has written shows none of its aspects through the v2 entity path
    When Ann reads a dataset no one has written through the metadata service's v2 entity path
    Then the answer shows no aspect of it but its key

  @id:restli-24 @should @core
  Scenario: A dataset no one has written is answered with its key alone through the v2 entity path, as DataHub's SDK expects
    When Ann reads a dataset no one has written through the metadata service's v2 entity path
    Then the answer is the dataset's key aspect alone

  @id:restli-10 @must @core @exclusive
  Scenario Outline: Someone granted only <privilege> on the dataset reads it through the v2 entity path
    Given the administrator has written a new dataset with a description and institutional memory
    And no policy lets every user read entities
    And Ann is granted <privilege> on the dataset only
    When Ann reads the dataset through the metadata service's v2 entity path
    Then the answer names the dataset and holds its properties, institutional memory and key, each with its value

    Examples:
      | privilege            |
      | GET_ENTITY_PRIVILEGE |
      | EDIT_ENTITY          |

  @id:restli-11 @must @core @exclusive
  Scenario Outline: Someone not allowed to read entities is refused through the <tier> v2 entity path
    Given the administrator has written a new dataset with a description and institutional memory
    And no policy lets every user read entities
    When Ann reads the dataset through the <tier> v2 entity path
    Then the answer has status 403
    And the answer shows nothing of the dataset

    Examples:
      | tier               |
      | metadata service's |
      | frontend's         |

  @id:restli-25 @must @core
  Scenario: Datasets are read in a batch through the v2 entity path, as the datahub CLI's migrate reads them
    Given the administrator has written a new dataset with a description and institutional memory
    When Ann reads the dataset and a dataset no one has written in a batch through the v2 entity path
    Then the batch's results hold the dataset with its properties, institutional memory and key, and no aspect of the other but its key

  @id:restli-26 @must @core @exclusive
  Scenario: Someone allowed to read only one dataset of a batch is refused the batch through the v2 entity path
    Given the administrator has written a new dataset with a description and institutional memory
    And no policy lets every user read entities
    And Ann is granted VIEW_ENTITY_PAGE on another dataset only
    When Ann reads the dataset and the other dataset in a batch through the v2 entity path
    Then the answer has status 403
    And the answer shows nothing of the dataset

  # Everyone may read their own user entity whatever the policies say, and no one
  # else's without a read privilege on it.
  @id:restli-27 @must @core @exclusive
  Scenario Outline: Everyone reads their own user through the <path>, and no one else's
    Given Bob is a user
    And no policy lets every user read entities
    When Ann reads her own user through the <path>
    Then the answer is Ann's user, with her info
    But Ann is refused Bob's user through the <path>, and shown nothing of him

    Examples:
      | path                              |
      | metadata service's aspect path    |
      | frontend's aspect path            |
      | metadata service's v2 entity path |
      | frontend's v2 entity path         |

  @id:restli-28 @must @core @exclusive
  Scenario: Someone who may read only their own user is refused a batch holding another's through the v2 entity path
    Given Bob is a user
    And no policy lets every user read entities
    When Ann reads her own user and Bob's in a batch through the v2 entity path
    Then the answer has status 403
    And the answer shows nothing of Bob's user

  @id:restli-12 @must @smoke
  Scenario Outline: Someone granted EDIT_ENTITY writes a batch of proposals through the <tier>, and each reads back
    Given Ann is granted EDIT_ENTITY
    When Ann writes a batch of proposals for two new datasets through the <tier>
    Then the batch is acknowledged
    And every proposal of the batch reads back
    And DataHub's SDK finds that each dataset of the batch exists

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:restli-13 @must @core
  Scenario: A batch sent for asynchronous ingestion is written
    Given Ann is granted EDIT_ENTITY
    When Ann writes a batch of proposals for two new datasets for asynchronous ingestion
    Then the batch is acknowledged
    And every proposal of the batch reads back

  @id:restli-23 @must @core
  Scenario: A batch of more than a MiB, as DataHub's SDK may send one, is written
    Given Ann is granted EDIT_ENTITY
    When Ann writes a batch of proposals of more than a MiB for two new datasets
    Then the batch is acknowledged
    And every proposal of the batch reads back

  @id:restli-29 @must @core
  Scenario: A batch that names one aspect of a dataset twice keeps the later value, and every other proposal
    Given Ann is granted EDIT_ENTITY
    When Ann writes a batch of proposals that describes a new dataset twice, differently
    Then the batch is acknowledged
    And the later description reads back, and every other proposal of the batch

  @id:restli-14 @must @core
  Scenario: A batch holding a dataset Ann may not write is refused, and none of it is stored
    Given Ann is granted EDIT_ENTITY on a new dataset only
    When Ann writes a batch of proposals for that dataset and another new dataset
    Then the answer has status 403
    And no proposal of the batch was stored

  @id:restli-15 @must @core
  Scenario Outline: Someone granted only <privilege> cannot write a batch, and none of it is stored
    Given Ann is granted <privilege>
    When Ann writes a batch of proposals for two new datasets
    Then the answer has status 403
    And no proposal of the batch was stored

    Examples:
      | privilege        |
      | DELETE_ENTITY    |
      | VIEW_ENTITY_PAGE |

  @id:restli-16 @must @core
  Scenario: Someone granted EDIT_ENTITY on tags cannot write a batch for datasets
    Given Ann is granted EDIT_ENTITY on tags
    When Ann writes a batch of proposals for two new datasets
    Then the answer has status 403
    And no proposal of the batch was stored

  @id:restli-17 @must @core
  Scenario: A grant to Bob does not let Ann write a batch for his dataset
    Given Bob holds a personal access token
    And Bob is granted EDIT_ENTITY on a new dataset only
    When Ann writes a batch of proposals for that dataset and another new dataset
    Then the answer has status 403
    And no proposal of the batch was stored

  @id:restli-18 @must @core
  Scenario: A batch holding a proposal that does not match its aspect's schema is refused, and none of it is stored
    Given Ann is granted EDIT_ENTITY
    When Ann writes a batch of proposals for two new datasets, the second description not being text
    Then the answer is a refusal of a bad request
    And no proposal of the batch was stored

  @id:restli-19 @must @core
  Scenario Outline: A request without a token is refused when it <does> through the <tier>
    When someone without a token <does> through the <tier>
    Then the request is refused as unauthenticated

    Examples:
      | does                   | tier             |
      | reads an aspect        | metadata service |
      | reads an aspect        | frontend         |
      | reads an entity        | metadata service |
      | reads an entity        | frontend         |
      | writes a batch         | metadata service |
      | writes a batch         | frontend         |

  @id:restli-20 @must @core
  Scenario: A proposal sent as the datahub CLI's put sends it is written
    Given Ann is granted EDIT_ENTITY
    When Ann puts a description for a new dataset as the datahub CLI does
    Then the ingestion is acknowledged
    And the dataset's description reads back through the metadata service's entity path

  @id:restli-21 @must @core
  Scenario: The server's DataHub version, when it names one, is one DataHub's SDK can read
    When someone without a token reads the server configuration
    Then the configuration names no DataHub version, or one DataHub's SDK can read

  @id:restli-22 @should @core
  Scenario Outline: A read of an aspect <flaw> is refused as a bad request
    When Ann reads an aspect <flaw> through the metadata service's aspect path
    Then the answer has status 400
    And the answer explains itself in JSON with its status and a message

    Examples:
      | flaw                  |
      | by a malformed URN    |
      | without naming it     |
