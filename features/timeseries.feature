@cap:timeseries
Feature: Timeseries aspects, written and read as DataHub's SDK reads them
  Some aspects are a series of values over time rather than one current value: a
  dataset's profiles and usage, an ingestion pipeline's checkpoints. Ingestion writes
  each value like any aspect; the entity keeps every value, each told apart by its time,
  and POST /aspects?action=getTimeseriesAspectValues reads them back, the latest first,
  filtered as DataHub's SDK filters them (a field equal to a value, a time range) and
  limited. `datahub get -a datasetProfile` asks for the latest value alone; stateful
  ingestion asks for the latest checkpoint of its own pipeline.

  Reading them needs GET_TIMESERIES_ASPECT_PRIVILEGE, EDIT_ENTITY or DELETE_ENTITY on the
  entity; being allowed to view the entity's page is not enough. Every user holds the
  first through a policy the service starts with, as DataHub's "All Users - View Entity
  Page" gives it.

  Background:
    Given Ann holds a personal access token

  @id:series-01 @must @smoke
  Scenario Outline: A dataset's profiles read back through the <tier>, the latest first
    Given the administrator has written three profiles of a new dataset, a day apart
    When Ann reads the dataset's profiles through the <tier>
    Then the answer holds the three profiles, the latest first

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:series-02 @must @core
  Scenario: The latest profile is read as `datahub get -a datasetProfile` reads it
    Given the administrator has written three profiles of a new dataset, a day apart
    When Ann reads the dataset's latest profile as the datahub CLI does
    Then the answer's first value is the latest profile

  @id:series-03 @must @core
  Scenario: The latest checkpoint of one pipeline is read as stateful ingestion reads it
    Given the administrator has written checkpoints of two pipelines on one data job
    When Ann reads the latest checkpoint of the first pipeline
    Then the answer is that pipeline's latest checkpoint alone

  @id:series-04 @must @core
  Scenario: A time range keeps the profiles between its bounds
    Given the administrator has written three profiles of a new dataset, a day apart
    When Ann reads the dataset's profiles of the middle day
    Then the answer holds the middle profile alone

  @id:series-05 @must @core
  Scenario: A profile written again for the same time replaces the one before
    Given the administrator has written three profiles of a new dataset, a day apart
    When the administrator writes the latest profile again with another row count
    Then the dataset's profiles are three, the latest with the new row count

  @id:series-06 @must @core
  Scenario: A profile without its time is refused as not matching its schema, and nothing of its batch is stored
    Given Ann is granted EDIT_ENTITY
    When Ann writes a batch of a new dataset's properties and a profile of it without its time
    Then the answer is a refusal of a bad request
    And the dataset was not made

  # Every user may read entities through a policy the service starts with. These
  # scenarios switch such policies off while they run, so they run alone.
  @id:series-07 @must @core @exclusive
  Scenario Outline: Someone granted only <privilege> on the dataset reads its profiles
    Given the administrator has written three profiles of a new dataset, a day apart
    And no policy lets every user read entities
    And Ann is granted <privilege> on the dataset only
    When Ann reads the dataset's profiles through the metadata service
    Then the answer holds the three profiles, the latest first

    Examples:
      | privilege                       |
      | GET_TIMESERIES_ASPECT_PRIVILEGE |
      | EDIT_ENTITY                     |
      | DELETE_ENTITY                   |

  @id:series-08 @must @core @exclusive
  Scenario Outline: Someone granted only <privilege> on the dataset is refused its profiles
    Given the administrator has written three profiles of a new dataset, a day apart
    And no policy lets every user read entities
    And Ann is granted <privilege> on the dataset only
    When Ann reads the dataset's profiles through the metadata service
    Then the answer has status 403
    And the answer shows none of the profiles

    Examples:
      | privilege            |
      | VIEW_ENTITY_PAGE     |
      | GET_ENTITY_PRIVILEGE |

  @id:series-09 @must @core @exclusive
  Scenario: Someone granted GET_TIMESERIES_ASPECT_PRIVILEGE on another dataset is refused this one's profiles
    Given the administrator has written three profiles of a new dataset, a day apart
    And no policy lets every user read entities
    And Ann is granted GET_TIMESERIES_ASPECT_PRIVILEGE on another dataset only
    When Ann reads the dataset's profiles through the metadata service
    Then the answer has status 403
    And the answer shows none of the profiles

  @id:series-10 @must @core
  Scenario Outline: Reading a dataset's profiles without a token is refused through the <tier>
    When someone without a token reads a dataset's profiles through the <tier>
    Then the request is refused as unauthenticated

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:series-11 @should @core
  Scenario: Reading an aspect that is not a timeseries aspect as one is refused as a bad request
    Given the administrator has written a new dataset with a description
    When Ann reads the dataset's properties as a timeseries aspect
    Then the answer has status 400
    And the answer explains itself in JSON with its status and a message
